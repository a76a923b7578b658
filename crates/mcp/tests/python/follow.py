"""Follows one switchyard run through the official MCP Python SDK (`mcp` from PyPI).

Usage: follow.py <switchyard binary> <stdio | http://127.0.0.1:PORT/mcp> <auto | legacy> <run id>

Over HTTP, a bearer token in `SWITCHYARD_TEST_FOLLOW_TOKEN` is sent with every request.

`auto` negotiates the newest protocol and follows with `subscriptions/listen`; `legacy` forces the
initialize handshake of earlier versions and follows with `resources/subscribe`. The script checks
that the run is listed, templated and readable, then follows it and prints one line per event, for
the test driving it:

    FOLLOWING                       the subscription is in force
    UPDATED <status> <nodeId>       an update arrived; the resource read after it

It follows until it is killed. Updates that arrive together may come as one (the SDK delivers them
as level triggers), so a test waits for the state it expects, not for a count. Any failed check
raises, which exits non-zero with the reason.
"""

import asyncio
import json
import os
import sys
import warnings

import mcp_types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def say(line):
    print(line, flush=True)


async def read(client, uri):
    result = await client.read_resource(uri)
    assert len(result.contents) == 1, result
    content = result.contents[0]
    assert str(content.uri) == uri and content.mime_type == "application/json", content
    return json.loads(content.text)


async def follow(binary, target, mode, run):
    if target.startswith("http"):
        token = os.environ.get("SWITCHYARD_TEST_FOLLOW_TOKEN")
        headers = {"Authorization": f"Bearer {token}"} if token else None
        server = streamable_http_client(target, http_client=create_mcp_http_client(headers=headers))
    else:
        server = StdioServerParameters(command=binary, args=["mcp"], env=dict(os.environ))
    uri = f"switchyard://runs/{run}"
    updates = asyncio.Queue()

    async def on_message(message):
        if isinstance(message, mcp_types.ResourceUpdatedNotification):
            await updates.put(str(message.params.uri))

    async with Client(server, mode=mode, message_handler=on_message) as client:
        capabilities = client.server_capabilities.resources
        assert capabilities is not None and capabilities.subscribe, client.server_capabilities

        templates = (await client.list_resource_templates()).resource_templates
        assert [template.uri_template for template in templates] == ["switchyard://runs/{runId}"], templates
        listed = [str(resource.uri) for resource in (await client.list_resources()).resources]
        assert uri in listed, listed

        state = await read(client, uri)
        assert state["runId"] == run and state["status"], state

        async def report(updated):
            assert updated == uri, updated
            state = await read(client, uri)
            say(f"UPDATED {state['status']} {state['nodeId']}")

        if mode == "legacy":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                await client.subscribe_resource(uri)
            say("FOLLOWING")
            while True:
                await report(await updates.get())
        else:
            async with client.listen(resource_subscriptions=[uri]) as subscription:
                assert subscription.honored.resource_subscriptions == [uri], subscription.honored
                events = aiter(subscription)
                # A listen starts with one update per run: read now.
                first = await anext(events)
                assert first.uri == uri, first
                say("FOLLOWING")
                while True:
                    await report((await anext(events)).uri)


def main():
    binary, target, mode, run = sys.argv[1:5]
    asyncio.run(follow(binary, target, mode, run))


if __name__ == "__main__":
    main()
