def test_x(client):
    for i in (132, 131):
        r = client.get(f"/api/v1/offers/{i}/history")
        print("HIST", i, r.status_code, r.text[:800])
    r = client.get("/api/v1/offers/132")
    print("ONE", r.status_code, r.text[:300])
    assert 0
