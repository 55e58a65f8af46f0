"""Writing memory: reading a message's facts (extraction and its rules), restatements, changes, the turn's memory commands, facts handed in by agents."""
