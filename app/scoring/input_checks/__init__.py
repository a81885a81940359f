"""What a user sends, checked before it is estimated: JSON read strictly and bounded, booleans refused as numbers,
and pydantic's errors worded at the field they are about."""
