"""Every schema of the structured-output corpus (320, tests/golden/constrain/schemas.jsonl) through
the HTTP API on the random-weight model: finish_reason "stop" and a jsonschema-valid output each
(ctest label `slow`; test_structured_outputs.py runs a seeded sample of it)."""
import structured_util as su


def test_all_generated_schemas(server):
    entries = su.load_schemas()
    assert len(entries) >= 300
    su.print_coverage(su.coverage(entries), len(entries))
    failures = su.run_schemas(server, entries)
    assert not failures, f"{len(failures)} of {len(entries)} schemas failed:\n" + "\n".join(failures)
