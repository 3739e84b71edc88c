"""``xuezhan serve``: the web table (docs/interfaces.md §2.11)."""

from __future__ import annotations

import errno
import socket
from pathlib import Path

import click

from ..errors import XuezhanError
from ..ids import ErrorCode
from ._common import guarded
from ._help import command


def _check_port(host: str, port: int) -> None:
    """Fail with exit 2 and a message (not a traceback) when the address cannot be bound."""
    if not 0 < port < 65536:
        raise XuezhanError(ErrorCode.BAD_PORT, f"--port must be 1-65535, not {port}")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise XuezhanError(ErrorCode.BAD_HOST, f"cannot resolve --host {host!r}: {exc.strerror}") from None
    except UnicodeError:  # not a name a resolver takes (bytes that are not UTF-8, say)
        raise XuezhanError(ErrorCode.BAD_HOST, f"cannot resolve --host {host!r}: not a host name") from None
    family, kind, proto, _, addr = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(addr)
        except OSError as exc:
            why = "is in use" if exc.errno == errno.EADDRINUSE else f"cannot be used: {exc.strerror}"
            raise XuezhanError(ErrorCode.ADDRESS_IN_USE, f"{host}:{port} {why}") from None


@command("serve")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=8000, show_default=True)
@click.option("--db", "db_url", default=None, metavar="URL")
@click.option("--config", "config_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              metavar="FILE.toml")
@click.option("--node", "node", default=None, metavar="NAME")
@guarded
def serve_cmd(host: str, port: int, db_url: str | None, config_file: Path | None, node: str | None) -> int:
    import uvicorn
    from sqlalchemy.exc import ArgumentError, SQLAlchemyError

    from ..server import create_app
    from ..server.config import ServerConfig
    from ..server.guard import guarded_config, raise_open_file_limit, tune_collector

    config = ServerConfig.from_file(config_file) if config_file is not None else None
    _check_port(host, port)
    if node is not None and not (0 < len(node) <= 100 and node.replace("-", "").replace("_", "").isalnum()
                                 and node.isascii()):
        raise XuezhanError(ErrorCode.BAD_NAME, f"--node is 1-100 letters, digits, '-' or '_', not {node!r}")
    try:
        app = create_app(db_url, config=config, node=node)
    except (ArgumentError, SQLAlchemyError, ImportError) as exc:
        raise XuezhanError(ErrorCode.BAD_DB, f"cannot open the database {db_url or '(default)'}: {exc}") from None
    settings = config or ServerConfig()
    limits = raise_open_file_limit()
    if limits is not None:
        click.echo(f"xuezhan: open files: up to {_limit(limits[0])} (hard limit {_limit(limits[1])}); "
                   f"{settings.max_connections_per_address} connections per address, request headers within "
                   f"{settings.header_timeout:g} s", err=True)
    tune_collector()  # last: what is alive now lives as long as the server
    where = "" if node is None else f" (node {node})"
    click.echo(f"xuezhan: the web table is at http://{host}:{port}/{where}", err=True)
    uvicorn.Server(guarded_config(app, settings, host=host, port=port, log_level="info", ws_max_size=65536,
                                  ws_per_message_deflate=False, proxy_headers=False)).run()
    return 0


def _limit(value: int) -> str:
    import resource

    return "unlimited" if value == resource.RLIM_INFINITY else str(value)


__all__ = ["serve_cmd"]
