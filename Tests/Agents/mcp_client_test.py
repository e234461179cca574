#!/usr/bin/env python3
"""`rewind mcp` driven by a real MCP client: the reference Python SDK (`mcp` on PyPI).

Records the demo's log with the built `rewind`, starts `rewind mcp` on it as a stdio server
the way an agent's host does, and asks what an agent asks: it initializes, lists the tools,
calls each one and compares its answer with the CLI's `--json` report of the same question,
finds the demo's bug (bisect, then why and diff at the seq it names), sends bad arguments,
asks for more than the answer cap, opens two logs, follows a long replay's progress, and
cancels one (the server's CPU use then stops, and it answers the next call). Run by Tools/mcp-tests.sh (which installs
what is missing); exits non-zero on the first failed check.

usage: mcp_client_test.py BIN_DIR WORK_DIR
"""
import asyncio
import json
import os
import subprocess
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
import mcp.types as types

BIN, WORK = (os.path.abspath(path) for path in sys.argv[1:3])
os.makedirs(WORK, exist_ok=True)
REWIND = os.path.join(BIN, "rewind")


def check(condition, message):
    if not condition:
        raise AssertionError(message)
    print(f"ok: {message}")


def cli(*arguments):
    """The CLI's --json answer to the same question."""
    done = subprocess.run([REWIND, *arguments, "--json"], cwd=WORK, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise AssertionError(f"rewind {' '.join(arguments)} failed: {done.stderr}")
    return json.loads(done.stdout)


def answer(result):
    """A tool result's JSON, which must not be an error."""
    if result.is_error:
        raise AssertionError(f"the tool answered with an error: {result.content[0].text}")
    return json.loads(result.content[0].text)


def error(result):
    """A tool result's error message, which it must be."""
    if not result.is_error:
        raise AssertionError(f"expected an error, got: {result.content[0].text[:300]}")
    return result.content[0].text


def server(*arguments):
    return stdio_client(StdioServerParameters(command=REWIND, args=["mcp", *arguments], cwd=WORK))


async def tools_and_answers(demo):
    async with server(demo) as (read, write), ClientSession(read, write) as session:
        started = await session.initialize()
        check(started.server_info.name == "rewind" and "rewind-demo.rewind" in (started.instructions or ""),
              f"initialize names the server and the log it answers about ({started.server_info.name}, {started.protocol_version})")
        listed = (await session.list_tools()).tools
        names = [tool.name for tool in listed]
        check(names == ["sessions", "log", "show", "state", "diff", "why", "blame", "bisect", "verify", "shrink", "profile"],
              f"the read-only questions are its tools ({names})")
        check(all(tool.annotations.read_only_hint and tool.input_schema.get("additionalProperties") is False for tool in listed),
              "every tool says it only reads, and its schema admits no other argument")

        # Each answer is the CLI's --json report of the same question.
        same = [
            ("sessions", {}, ["sessions", demo]),
            ("show", {"at": 9}, ["show", demo, "--at", "9"]),
            ("state", {"at": 12}, ["state", demo, "--at", "12"]),
            ("diff", {"at": 12}, ["diff", demo, "--at", "12"]),
            ("diff", {"from": 3, "to": 40}, ["diff", demo, "--from", "3", "--to", "40"]),
            ("why", {"at": 9}, ["why", demo, "--at", "9"]),
            ("blame", {"path": "cart.total"}, ["blame", demo, "--path", "cart.total"]),
            ("bisect", {"where": "cart.lines.count >= 3"}, ["bisect", demo, "--where", "cart.lines.count >= 3"]),
            ("verify", {}, ["verify", demo]),
        ]
        for tool, arguments, command in same:
            got = answer(await session.call_tool(tool, arguments))
            check(got == cli(*command), f"{tool} {arguments} answers as `rewind {' '.join(command[:1] + command[2:])} --json`")
        shrunk = answer(await session.call_tool("shrink", {"invariant": "non-negative-total"}))
        expected = cli("shrink", demo, "--invariant", "non-negative-total", "--output", os.path.join(WORK, "shrunk.rewind"))
        check(shrunk["report"]["keptCount"] == expected["keptCount"] and "fixture" not in shrunk and "@Test" in shrunk["test"],
              f"shrink keeps {expected['keptCount']} actions, as the CLI does, with a test and without the fixture's bytes")
        profiled = answer(await session.call_tool("profile", {"slowest": 3}))
        timed = cli("profile", demo, "--slowest", "3")
        check({c["actionCase"]: c["count"] for c in profiled["cases"]} == {c["actionCase"]: c["count"] for c in timed["cases"]}
              and len(profiled["slowest"]) == 3, "profile counts each case as the CLI does (the times are this run's)")

        # A page of the log, then the next one.
        first = answer(await session.call_tool("log", {"after": 0, "limit": 25}))
        second = answer(await session.call_tool("log", {"after": first["events"][-1]["seq"], "limit": 25}))
        seqs = [e["seq"] for e in first["events"] + second["events"]]
        check(seqs == list(range(1, 51)) and first["more"], "the log pages forward, 25 events a page")

        # The demo's bug, found as an agent would: bisect on the invariant, then why and what changed.
        bug = answer(await session.call_tool("bisect", {"invariant": "non-negative-total"}))
        seq = bug["seq"]
        why = answer(await session.call_tool("why", {"at": seq}))
        diff = answer(await session.call_tool("diff", {"at": seq}))
        check(seq == 12 and bug["event"]["action"] == "cart.setQuantity" and why["start"] == "root" and len(why["chain"]) == 1
              and "-1000" in diff["diff"],
              f"the demo's bug: seq {seq}, a stepper tap nothing caused, after which the total is -10.00")

        # Bad arguments: a tool error with the CLI's message; an unknown tool: a protocol error.
        for tool, arguments, needle in [
            ("state", {"at": 99999}, "there is no event with seq 99999"),
            ("state", {}, "needs the argument 'at'"),
            ("state", {"at": "twelve"}, "at: give a whole number"),
            ("state", {"at": 12, "verbose": True}, "'state' has no argument 'verbose'"),
            ("blame", {"path": "cart.totl"}, "did you mean 'total'"),
            ("bisect", {"invariant": "no-such-invariant"}, "no invariant named 'no-such-invariant'"),
            ("bisect", {"where": "cart.total <"}, "--where"),
            ("log", {"limit": 0}, "limit=0"),
            ("show", {"at": 0}, "--at 0"),
            ("state", {"at": 12, "log": "elsewhere.rewind"}, "no log"),
        ]:
            message = error(await session.call_tool(tool, arguments))
            check(needle in message, f"{tool} {arguments}: {message[:120]}")
        try:
            await session.call_tool("write_log", {})
            check(False, "an unknown tool is refused")
        except Exception as refused:
            check("no tool 'write_log'" in str(refused), f"an unknown tool is a protocol error ({refused})")
        # Still answering after all that.
        check(answer(await session.call_tool("show", {"at": 1}))["seq"] == 1, "the server still answers")


async def capped(demo):
    async with server(demo, "--max-answer-bytes", "2048") as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        message = error(await session.call_tool("blame", {"path": "cart.total"}))
        check("over this server's limit of 2048" in message and "ask for less" in message, f"an answer over the cap is refused, saying how to ask for less ({message[:80]}…)")
        check(answer(await session.call_tool("show", {"at": 12}))["seq"] == 12, "a small answer still comes")


async def two_logs(demo, other):
    async with server(demo, other) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        message = error(await session.call_tool("sessions", {}))
        check("say which log" in message, f"with two logs open, a call names one ({message})")
        a = answer(await session.call_tool("sessions", {"log": "rewind-demo.rewind"}))
        b = answer(await session.call_tool("sessions", {"log": os.path.basename(other)}))
        check(a[0]["events"] == 60 and b[0]["events"] == 120, "each log answers for itself, by its name or its file name")


async def progress(big):
    """A long replay reports how far it is to a client that asks (its progressToken)."""
    async with server(big) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        reports = []

        async def heard(done, total, message):
            reports.append((done, total, message))

        began = time.monotonic()
        verified = answer(await session.call_tool("verify", {}, progress_callback=heard))
        took = time.monotonic() - began
        # Progress goes out every half second: a call of a second or more has some.
        check(verified["agrees"] and (reports or took < 1) and all(total == reports[-1][1] for _, total, _ in reports)
              and [done for done, _, _ in reports] == sorted(done for done, _, _ in reports) and all("seq" in m for _, _, m in reports),
              f"a long verify ({took:.1f} s) sends its progress, rising ({len(reports)} reports, the last {reports[-1] if reports else None})")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def cancelled(big):
    """A bisect with --where over a long log encodes every state: long enough to cancel."""
    process = await asyncio.create_subprocess_exec(REWIND, "mcp", big, cwd=WORK, stdin=asyncio.subprocess.PIPE,
                                                   stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)

    async def send(message):
        process.stdin.write((json.dumps(message) + "\n").encode())
        await process.stdin.drain()

    async def receive(request_id, timeout):
        while True:
            line = await asyncio.wait_for(process.stdout.readline(), timeout)
            message = json.loads(line)
            if message.get("id") == request_id:
                return message

    await send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "cancel-test", "version": "1"}}})
    await receive(1, 30)
    await send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    await send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "bisect", "arguments": {"where": "cart.total < -999999999"}}})
    await asyncio.sleep(1.5)
    busy = cpu_seconds(process.pid)
    await send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "the user moved on"}})
    await asyncio.sleep(1.5)
    settled = cpu_seconds(process.pid)
    await asyncio.sleep(2)
    later = cpu_seconds(process.pid)
    check(busy > 0.5 and later - settled < 0.3, f"a cancelled replay stops: {busy:.2f} s of CPU while it ran, {later - settled:.2f} s in the 2 s after")
    await send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "sessions", "arguments": {}}})
    reply = await receive(3, 30)
    check("result" in reply, "the next call is answered")
    process.stdin.close()
    # No answer ever comes for the cancelled request, and the server ends with its input.
    rest = (await asyncio.wait_for(process.stdout.read(), 30)).decode()
    check(all(json.loads(line).get("id") != 2 for line in rest.splitlines() if line.strip()), "the cancelled request gets no answer")
    check(await asyncio.wait_for(process.wait(), 30) == 0, "the server ends when its input closes")


async def main():
    started = time.monotonic()
    demo = os.path.join(WORK, "rewind-demo.rewind")
    other = os.path.join(WORK, "other.rewind")
    big = os.path.join(WORK, "big.rewind")
    for path, count in [(demo, 60), (other, 120), (big, 100000)]:
        if os.path.exists(path):
            os.remove(path)
        subprocess.run([REWIND, "demo", "--quiet", "--actions", str(count), "--output", path], cwd=WORK, check=True, capture_output=True)
    await tools_and_answers("rewind-demo.rewind")
    await capped("rewind-demo.rewind")
    await two_logs("rewind-demo.rewind", other)
    await progress(big)
    await cancelled(big)
    print(f"mcp client tests passed in {time.monotonic() - started:.1f} s")


asyncio.run(main())
