"""`chronolog.connect`: the client of `chronolog serve`. Its calls against
a real server are tested with the server (bindings/cli/tests/python/
test_serve.py); here, what the installed package offers without one."""

import socket

import pytest

import chronolog


def test_connect_is_exported_and_an_unreachable_server_is_a_remote_error():
    # A port nothing listens on: bind one, then close it.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    memory = chronolog.connect(f"http://127.0.0.1:{port}/", "chronolog_00000000_" + "0" * 64)
    assert isinstance(memory, chronolog.RemoteMemory)
    assert memory.url == f"http://127.0.0.1:{port}"
    with pytest.raises(chronolog.RemoteError) as raised:
        memory.status()
    assert raised.value.status == 0 and raised.value.code == "unreachable"
