"""The campaign between sessions (issue 36): catch-up (read marks, unread, what waits for me), the schedule (proposed
sessions, RSVPs, calendars, reminders), recaps of game sessions and the safety tools (X-card, lines and veils).
The JSON API is ../shared/contracts/BETWEEN-SESSIONS-API.md."""
