"""Heyan memory: typed facts and summaries on Qdrant, embeddings, BM25, retrieval, consolidation."""
