"""The console's server-rendered pages: records, commitments, disputes, members, audit and settings."""
