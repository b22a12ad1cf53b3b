"""Pure game logic. Nothing here does I/O or imports the web stack; dice come in as an argument."""
