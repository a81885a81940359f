"""One canonical, compact query string per question: parsed into a workload and written back.

The page, its htmx fragment, the `.json` and `.csv` twins, saved links and the CLI all go
through here, so a pasted link reproduces the same answer. Lists are comma-joined, defaults
are left out, and form conveniences (tokens/s per user, steps, a pasted config.json, repeated
checkbox values) are turned into the canonical fields, which the page then redirects to.
A results page's query also names which rows it shows and in what order (`view.ResultsView`: `sort`, `show`,
`page`), after the question.

- `values`: a query's raw values read (lists gathered, numbers as typed, repeated keys refused) and written
- `form_numbers`: numbers as people type them into the pages' forms (`500,000`, `1e3`)
- `fields`: which parameters a page's question takes (any other is a 422 naming it)
- `phase`: which workload a query asks about, and whether it asks a question at all
- `custom_model`: a custom model from arch_* fields or a pasted config.json, and back into a link's arch_* pairs
- `conveniences`: form fields that are another spelling of a workload field (tokens/s per user, steps)
- `view`: a results page's `sort`, `show` and `page`
- `canonical`: a workload written as its canonical query
- `question`: a query parsed into a workload, errors naming fields, and its canonical link
- `plan`: /plan's question (inference workload, traffic, an optional training run) and /disagg's, parsed and
  written, and a ranking's link turned into a plan's
"""
