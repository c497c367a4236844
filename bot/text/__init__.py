"""What Heyan says to people, in English and Chinese: one gettext catalog for every surface."""
