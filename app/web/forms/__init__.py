"""What the forms say to a person: each field's label for the error summary, the one-line summary a results page
folds its form under, and the services' error messages reworded to point at a page instead of the JSON API."""
