"""How right Heyan is: recall, extraction, answers, flags and alerts scored against labelled corpora."""
