"""What the sanitizer run of the suite leaves out (TCPDIAG_SANITIZE=1 ./run test): tests
that run the same builds on the same captures as others do, to compare two outputs.
Under ASan and UBSan the question is whether any run touches memory it must not; these
add no code path to test_captures' (the plugin, -2, on every committed capture) and
test_command's other tests (the command in every format), only the comparison, which
the plain run makes. They are a fifth of the suite's time, and CI runs the suite four
times (plain, ASan, Wireshark 4.4 and 4.6)."""
import os

# test function: the run it repeats
SAME_RUNS_AS_OTHERS = {
    "test_budget_adds_up_in_both_front_ends": "test_capture's plugin run and the command's json, compared",
    "test_command_matches_plugin": "test_capture's plugin run and the command's text, compared",
    "test_community_id_is_the_references": "the command's json and the plugin's fields, against a reference library",
}


def pytest_collection_modifyitems(config, items):
    if os.environ.get("TCPDIAG_SANITIZE") != "1":
        return
    left_out = [item for item in items if item.originalname in SAME_RUNS_AS_OTHERS]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if item.originalname not in SAME_RUNS_AS_OTHERS]
