"""Who a call comes from, for the fair share of search slots (``searches.py``).

A caller is, in this order:

1. its API key (``auth.py``): ``key:`` and a digest of the key, never the key;
2. else the ``gamerules-caller`` metadata, when the call comes from a trusted peer (``GAMERULES_TRUSTED_PEERS``,
   addresses or networks, comma-separated; default loopback): a backend that serves many users sets it to
   the user it calls for. The REST gateway sets it to the HTTP client's address, so that REST callers get
   shares of their own rather than one for the whole gateway, and to ``address/player`` when a client it
   trusts (``GAMERULES_GATEWAY_TRUSTED_CLIENTS``) names its player in the ``Gamerules-Caller`` header;
3. else its address, without the port: ``address:10.0.0.7``.

The caller's *class* (``key``, ``forwarded``, ``address``) labels the metrics; the caller itself never does
(one series per key or address would grow without bound).
"""

from __future__ import annotations

import hashlib
import ipaddress
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from service.api import auth

CALLER_METADATA = "gamerules-caller"
CALLER_HEADER = "Gamerules-Caller"  # the same over REST, from a client the gateway trusts (``named_by``)
ENV_TRUSTED_PEERS = "GAMERULES_TRUSTED_PEERS"
DEFAULT_TRUSTED_PEERS = "127.0.0.0/8,::1/128"
MAX_CALLER_CHARS = 100
CLASSES = ("key", "forwarded", "address")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class Caller:
    name: str  # what the share is counted by
    kind: str  # one of CLASSES: the metrics' label


def trusted_networks(text: str) -> tuple[Network, ...]:
    """``GAMERULES_TRUSTED_PEERS`` read: a ValueError naming the entry that is no address or network."""
    networks = []
    for entry in (part.strip() for part in text.split(",")):
        if entry:
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                raise ValueError(f"{ENV_TRUSTED_PEERS}: {entry!r} is no address or network") from None
    return tuple(networks)


def networks_setting(raw: str) -> tuple[Network, ...]:
    """``trusted_networks`` as a setting reads it (``settings.value``): its error says what to send."""
    try:
        return trusted_networks(raw)
    except ValueError:
        raise ValueError("send addresses or networks, comma-separated, such as 10.0.0.0/8,::1") from None


def peer_address(peer: str) -> str:
    """The address of a gRPC peer string (``ipv4:10.0.0.7:5000``, ``ipv6:[::1]:5000``, ``unix:...``)."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    if kind == "ipv6":
        return rest.rpartition(":")[0].removeprefix("[").removesuffix("]").partition("%")[0]
    return kind or "unknown"


def identify(get: Callable[[str], str | None], peer: str, trusted: Iterable[Network]) -> Caller:
    """The caller of a call whose metadata ``get`` reads (lower-case keys) and which came from ``peer``."""
    key = auth.presented_key(get)
    if key:
        return Caller("key:" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16], "key")
    address = peer_address(peer)
    forwarded = (get(CALLER_METADATA) or "").strip()
    if forwarded and _within(address, trusted):
        return Caller("forwarded:" + forwarded[:MAX_CALLER_CHARS], "forwarded")
    return Caller("address:" + address, "address")


def named_by(address: str, named: str | None, trusted: Iterable[Network]) -> str:
    """The caller the REST gateway passes on for an HTTP client at ``address`` that sent ``named`` in the
    ``Gamerules-Caller`` header: ``address/named`` when the client is trusted (a portal's backend naming its
    player; the address keeps two portals' players apart), else the address alone."""
    named = (named or "").strip()
    if named and _within(address, trusted):
        return f"{address}/{named}"[:MAX_CALLER_CHARS]
    return address


def _within(address: str, networks: Iterable[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)
