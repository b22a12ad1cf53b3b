"""Table talk: messages in the log (out of character or in character; to everyone, the narrators, a whisper or a
team), their edits and withdrawals. docs/LOG_FORMAT.md ("Talk"), docs/TRUST.md."""
