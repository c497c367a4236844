"""Text turned into what is searched: dense embeddings (an OpenAI-compatible endpoint or local e5) and BM25 vectors."""
