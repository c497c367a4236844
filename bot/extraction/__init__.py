"""From messages to records: the extractor port and its checks (``candidates``), the cheap trigger that
extracts at once (``triggers``) and promises that close themselves on a "done" (``completions``)."""
