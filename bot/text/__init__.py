"""What Heyan shows people: words (one gettext catalog per language), languages, names, kinds, times and zones,
due times, text with mentions."""
