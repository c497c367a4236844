"""Finding and ranking records: hybrid search, fusion and signals, hops through relations, the recall cache."""
