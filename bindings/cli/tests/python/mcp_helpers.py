"""What the MCP tests share: the binary under test, a tool result's text,
and a coroutine run with a deadline so a hung server fails the test."""

import asyncio
import os

BIN = os.environ["CHRONOLOG_BIN"]


def text(result):
    return "\n".join(block.text for block in result.content if block.type == "text")


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=120))
