"""The catalog's lists and payloads, shared by its pages, their JSON twins, the API and `gpumatch catalog`: the
public shapes (schemas), the payload builders (views, provider_views) and each list's sort and filters (list_filters,
read by list_query and list_checks)."""
