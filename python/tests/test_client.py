"""The client against a real `winnow serve`: request ids, recover(), retries and their bound."""

from __future__ import annotations

import tempfile
import unittest

from serve_harness import Server, arithmetic_config, free_port
from winnow_client import WinnowClient, WinnowServeError, WinnowUnavailable


class ClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.dir = tempfile.mkdtemp(prefix="winnow-py-client-")
        cls.server = Server(arithmetic_config(cls.dir)).start()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.stop()

    def test_select_retried_with_its_request_id_selects_nothing_new_and_recover_returns_it(self) -> None:
        c = WinnowClient(self.server.url)
        first = c.select(3, request_id="py-sel-1")
        again = c.select(3, request_id="py-sel-1")
        self.assertEqual(again["taskIds"], first["taskIds"])
        self.assertEqual(again["step"], first["step"])
        self.assertTrue(again.get("repeated"))
        fresh = WinnowClient(self.server.url)  # a restarted trainer knows nothing
        recovered = fresh.recover()
        assert recovered is not None
        self.assertEqual((recovered["step"], recovered["taskIds"]), (first["step"], first["taskIds"]))
        fed = fresh.feedback([{"taskId": t, "rewards": [1, 0]} for t in first["taskIds"]])
        self.assertEqual(fed["selectStep"], first["step"])
        repeat = fresh.feedback([{"taskId": t, "rewards": [1, 0]} for t in first["taskIds"]])
        self.assertTrue(repeat["repeated"])
        self.assertEqual(repeat["step"], fed["step"])
        self.assertIsNone(fresh.recover())
        self.assertEqual(fresh.metrics()["feedbackSteps"], fed["step"])

    def test_refused_requests_raise_with_field_and_are_not_retried(self) -> None:
        c = WinnowClient(self.server.url)
        with self.assertRaises(WinnowServeError) as cm:
            c.select(1000)
        self.assertEqual((cm.exception.status, cm.exception.field), (400, "n"))
        self.assertEqual(c.retried, 0)

    def test_rewards_by_name(self) -> None:
        c = WinnowClient(self.server.url)
        got = c.rewards("math", [{"response": "\\boxed{12}", "answer": "12"}, {"response": "13", "answer": "12"}])
        self.assertEqual(got, [1, 0])

    def test_nan_rewards_travel_as_invalid(self) -> None:
        c = WinnowClient(self.server.url)
        sel = c.select(1)
        fed = c.feedback([{"taskId": sel["taskIds"][0], "rewards": [float("nan"), 1.0]}])
        self.assertEqual((fed["rewards"], fed["droppedRewards"]), (1, 1))


    def test_experiences_then_leased_batches_as_json_and_arrow_then_ack(self) -> None:
        c = WinnowClient(self.server.url)
        sel = c.select(2)
        rows = [{"taskId": t, "response": str(k), "reward": float(k % 2)} for t in sel["taskIds"] for k in range(2)]
        wrote = c.write_experiences(rows)
        again = c.write_experiences(rows)  # a retried write adds nothing
        self.assertEqual((wrote["kept"], again["bufferSize"]), (4, wrote["bufferSize"]))
        batch = c.sample(n=2)
        self.assertEqual(len(batch["experiences"]), 2)
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            print("NOTE: pyarrow is not installed: the Arrow sample check is skipped")
            lease = batch["lease"]
        else:
            lease, table = c.sample_table(n=2)
            self.assertEqual((lease, table.num_rows), (batch["lease"] + 1, 2))
            self.assertIn("weight", table.column_names)
        self.assertEqual(c.ack(lease)["acknowledgedThrough"], lease)
        c.feedback([{"taskId": t, "passRate": 0.5, "count": 2} for t in sel["taskIds"]])  # nothing left waiting


class UnreachableTest(unittest.TestCase):
    def test_bounded_retries_with_backoff_then_one_line(self) -> None:
        waits = []
        c = WinnowClient(f"http://127.0.0.1:{free_port()}", retries=4, backoff=0.5, max_backoff=2.0, sleep=waits.append)
        with self.assertRaises(WinnowUnavailable) as cm:
            c.select(1)
        self.assertEqual(waits, [0.5, 1.0, 2.0, 2.0])
        message = str(cm.exception)
        self.assertNotIn("\n", message)
        self.assertIn("did not answer POST /v1/select after 5 attempt(s)", message)


if __name__ == "__main__":
    unittest.main()
