"""Attacks on memory: lines that try to write records instead of talking (``poisoning``), instructions to
the bot (``instructions``) and the shapes an attack takes (``shapes``). Asked about every source message."""
