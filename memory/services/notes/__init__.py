"""Notes: storing, versioning, moderating and reporting on notes, and the memory events of a turn."""
