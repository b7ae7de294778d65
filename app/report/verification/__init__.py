"""``accord verify``'s reading of a certificate PDF: what a viewer shows, checked against the
attached data (the structure a viewer follows, the attachment it lists, the pages it draws)."""
