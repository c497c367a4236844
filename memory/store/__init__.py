"""Where records are kept: Qdrant Edge or a Qdrant server, the payload codec and sealing, the data dir's files."""
