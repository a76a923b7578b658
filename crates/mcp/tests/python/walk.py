"""Drives switchyard through the official MCP Python SDK (`mcp` from PyPI), over stdio or HTTP.

Usage: walk.py <switchyard binary> <workspace> <stdio | http://127.0.0.1:PORT/mcp> [workflow]

Walks a workflow from start to completion by following each answer's `nextCall` (a human
approves gates with the CLI, as a person would), and on the way checks a blocked attempt, a
replay, a replay with a different payload, a fork from an older point, a resume_session lookup
by a word from the goal, and a tampered token. Prints `WALK OK <steps>` on success; any failed
check raises, which exits non-zero with the reason.
"""

import asyncio
import json
import os
import subprocess
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters


def structured(result, expect_error=False):
    if expect_error:
        assert result.is_error, f"expected a tool error, got {result}"
        return json.loads(result.content[0].text)
    assert not result.is_error, f"tool error: {result.content[0].text}"
    assert result.structured_content is not None, "no structuredContent"
    assert result.content and result.content[0].text, "no rendered text"
    return result.structured_content


def approve(binary, run):
    done = subprocess.run([binary, "approve", run], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"switchyard approve failed: {done.stderr}"


def report_for(pending):
    args = {"output": {"notesMarkdown": f"Did `{pending['stepId']}`: wrote the zebra parser and its tests."}}
    if pending.get("needsChoice"):
        edges = pending["allowedNext"]
        finishing = [edge for edge in edges if edge["to"] is None]
        args["choice"] = (finishing or edges)[0]["label"]
    return args


async def walk(binary, workspace, target, workflow):
    server = target if target.startswith("http") else StdioServerParameters(command=binary, args=["mcp"], env=dict(os.environ))
    async with Client(server) as client:
        names = sorted(tool.name for tool in (await client.list_tools()).tools)
        assert names == sorted(
            [
                "list_workflows",
                "inspect_workflow",
                "start_workflow",
                "continue_workflow",
                "checkpoint_workflow",
                "resume_session",
                "manage_workflow_source",
            ]
        ), names

        listed = structured(await client.call_tool("list_workflows", {"workspacePath": workspace, "listAll": True}))
        assert any(entry["workflowId"] == workflow for entry in listed["workflows"]), listed

        word = "okapi" if target == "stdio" else "quagga"
        goal = f"Add a {word}-striped progress bar"
        answer = structured(await client.call_tool("start_workflow", {"workflowId": workflow, "workspacePath": workspace, "goal": goal}))
        assert answer["kind"] == "ok" and answer["continueToken"], answer
        run, first_resume = answer["runId"], answer["resumeToken"]

        # A blocked attempt: no notes on a step that requires them.
        if answer["pending"]["notesRequired"]:
            blocked = structured(await client.call_tool("continue_workflow", {"continueToken": answer["continueToken"], "intent": "advance", "context": {}}))
            assert blocked["kind"] == "blocked" and blocked["retryContinueToken"], blocked
            assert blocked["validation"]["issues"], blocked
            answer = blocked

        # A tampered token is refused with its code, and the server keeps serving.
        token = answer["continueToken"]
        tampered = token[:-2] + ("AA" if token[-2:] != "AA" else "BB")
        error = structured(await client.call_tool("continue_workflow", {"continueToken": tampered, "output": {"notesMarkdown": "x"}}), expect_error=True)
        assert error["code"] in ("TOKEN_BAD_SIGNATURE", "TOKEN_INVALID_FORMAT"), error

        steps = 0
        replay_checked = False
        while answer["kind"] != "complete":
            steps += 1
            assert steps < 60, "the walk did not finish"
            if answer["kind"] in ("ok", "blocked"):
                call = answer["nextCall"]
                assert call["tool"] == "continue_workflow", call
                args = {"continueToken": call["params"]["continueToken"], **report_for(answer["pending"])}
                nxt = structured(await client.call_tool("continue_workflow", args))
                if not replay_checked:
                    again = structured(await client.call_tool("continue_workflow", args))
                    assert again["replayed"] and again["nodeId"] == nxt["nodeId"], again
                    different = dict(args, output={"notesMarkdown": "something else"})
                    mismatch = structured(await client.call_tool("continue_workflow", different), expect_error=True)
                    assert mismatch["code"] == "REPLAY_MISMATCH", mismatch
                    replay_checked = True
                answer = nxt
            elif answer["kind"] == "waiting_for_human_gate":
                assert answer["retryable"] and "switchyard approve" in answer["gate"]["approveWith"], answer
                waiting = structured(await client.call_tool("continue_workflow", answer["nextCall"]["params"]))
                assert waiting["kind"] == "waiting_for_human_gate", waiting
                approve(binary, run)
                answer = structured(await client.call_tool("continue_workflow", answer["nextCall"]["params"]))
            else:
                raise AssertionError(f"unexpected kind {answer['kind']}: {answer}")
        assert answer["isComplete"], answer
        assert replay_checked, "no advance was replayed"

        # A fork: rehydrate the first point of a second run after it moved on, and advance again.
        second = structured(await client.call_tool("start_workflow", {"workflowId": workflow, "workspacePath": workspace, "goal": "Second run for the fork"}))
        moved = structured(await client.call_tool("continue_workflow", {"continueToken": second["continueToken"], **report_for(second["pending"])}))
        assert moved["nodeId"] != second["nodeId"], moved
        again = structured(await client.call_tool("continue_workflow", {"continueToken": second["resumeToken"], "workspacePath": workspace}))
        assert again["kind"] == "ok" and again["continueToken"] != second["continueToken"], again
        assert again["recap"] is not None, again
        forked = structured(await client.call_tool("continue_workflow", {"continueToken": again["continueToken"], "output": {"notesMarkdown": "A different plan."}}))
        assert forked["forked"], forked

        # resume_session finds the first run by a word of its goal.
        found = structured(await client.call_tool("resume_session", {"workspacePath": workspace, "query": word}))
        assert found["candidates"], found
        best = found["candidates"][0]
        assert best["runId"] == run and best["confidence"] == "strong", best
        rehydrated = structured(await client.call_tool("continue_workflow", best["nextCall"]["params"]))
        assert rehydrated["runId"] == run and rehydrated["isComplete"], rehydrated

        # Bad arguments get a precise error naming the field.
        bad = structured(await client.call_tool("start_workflow", {"workflowId": workflow, "workspacePath": workspace, "gaol": "typo"}), expect_error=True)
        assert bad["code"] == "VALIDATION_ERROR" and "goal" in bad["message"], bad
        print(f"WALK OK {steps}")


if __name__ == "__main__":
    binary, workspace, target = sys.argv[1], sys.argv[2], sys.argv[3]
    workflow = sys.argv[4] if len(sys.argv) > 4 else "dev-cycle"
    asyncio.run(walk(binary, workspace, target, workflow))
