"""Personal identifiers and secrets: found in text, normalised, never stored."""
