"""What the commands print their answers with: the one aligned or Markdown text-table writer (writer) and a
ranking's table, reasons, price labels and notes (ranking)."""
