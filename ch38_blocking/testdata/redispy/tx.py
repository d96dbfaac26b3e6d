"""Transactions through redis-py: pipeline(transaction=True), and WATCH
with a write by another client in between (WatchError); then scan_iter()
and info(), which redis-py builds on SCAN and INFO. Run by
TestRedisPyTransactions as: python3 tx.py host port. Prints "ok", or
fails with the first assertion that does not hold."""

import sys

import redis

host, port = sys.argv[1], int(sys.argv[2])
r = redis.Redis(host=host, port=port, decode_responses=True)
other = redis.Redis(host=host, port=port, decode_responses=True)
r.flushall()

# MULTI, the commands and EXEC in one write; EXEC's array is read into
# one result per command, each parsed as the command's own reply.
with r.pipeline(transaction=True) as p:
    p.set("a", "1").set("b", "2").get("a").zadd("z", {"m": 1.5}).zscore("z", "m")
    got = p.execute()
assert got == [True, True, "1", 1, 1.5], got

# A runtime error is that command's element; the others ran.
with r.pipeline(transaction=True) as p:
    p.set("s", "v").zadd("s", {"m": 1}).get("s")
    got = p.execute(raise_on_error=False)
assert got[0] is True and got[2] == "v", got
assert isinstance(got[1], redis.ResponseError) and "WRONGTYPE" in str(got[1]), got

# A command refused when queued: EXEC discards the transaction.
with r.pipeline(transaction=True) as p:
    p.set("x", "1").execute_command("NOSUCH")
    try:
        p.execute()
        raise AssertionError("a transaction with an unknown command ran")
    except redis.ResponseError as e:
        assert "unknown command" in str(e) or "EXECABORT" in str(e), e
assert r.get("x") is None

# WATCH, then another client writes the key: EXEC runs nothing, and
# redis-py raises WatchError.
with r.pipeline() as p:
    p.watch("counter")
    assert p.get("counter") is None
    other.set("counter", "100")
    p.multi()
    p.set("counter", "1")
    try:
        p.execute()
        raise AssertionError("EXEC ran though a watched key was written")
    except redis.WatchError:
        pass
assert r.get("counter") == "100"


# redis-py's own retry loop: WATCH, read, MULTI, write, EXEC.
def increment(pipe):
    n = int(pipe.get("counter") or 0)
    pipe.multi()
    pipe.set("counter", n + 1)


r.transaction(increment, "counter")
assert r.get("counter") == "101"

# scan_iter() sends SCAN until the cursor is 0 again, a few keys at a
# time; every key comes back once, while other keys are being added.
r.flushall()
r.mset({"k:%d" % i: i for i in range(500)})
seen = []
for i, key in enumerate(r.scan_iter(match="k:*", count=20)):
    seen.append(key)
    other.set("new:%d" % i, "x")
assert sorted(seen) == sorted("k:%d" % i for i in range(500)), len(seen)

# info() parses INFO's text into a dict.
info = r.info()
assert info["redis_version"] and info["connected_clients"] >= 2, info
assert info["db0"]["keys"] == r.dbsize(), info["db0"]
print("ok")
