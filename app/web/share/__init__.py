"""Saved links: POST /share (a JSON body or the results page's Save form, read into one request model) saves a
question and the prices it was ranked with; /s/{slug} replays it."""
