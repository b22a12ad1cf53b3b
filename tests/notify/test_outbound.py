"""The outbound allow-list (contract section 5): exact origins, no userinfo, no name that leads inside a private
range unless that literal address is listed; the defaults are https only."""

from __future__ import annotations

import pytest

from app.outbound import DEFAULT_ORIGINS, OutboundPolicy, OutboundRefused


def resolver(table: dict[str, list[str]]):
    def resolve(host: str, port: int) -> list[str]:
        if host not in table:
            raise OSError("no such name")
        return table[host]

    return resolve


DNS = {
    "push.example.com": ["93.184.216.34"],
    "sneaky.example.com": ["127.0.0.1"],
    "inside.example.com": ["10.1.2.3", "93.184.216.34"],
    "v6.example.com": ["::1"],
    "meta.example.com": ["169.254.169.254"],
}


def policy(setting: str) -> OutboundPolicy:
    return OutboundPolicy.parse(setting, resolver(DNS))


@pytest.mark.parametrize(
    "url", ["https://push.example.com/send/abc", "https://push.example.com:443/x", "https://PUSH.example.com/x"]
)
def test_a_listed_origin_is_allowed(url: str) -> None:
    assert policy("https://push.example.com").check(url) == "https://push.example.com"


@pytest.mark.parametrize(
    "url, words",
    [
        ("http://push.example.com/x", "not on the outbound allow-list"),  # another scheme
        ("https://push.example.com:8443/x", "not on the outbound allow-list"),  # another port
        ("https://other.example.com/x", "not on the outbound allow-list"),
        ("https://user:pw@push.example.com/x", "user name or password"),
        ("https://push.example.com@evil.example/x", "user name or password"),
        ("ftp://push.example.com/x", "only http and https"),
        ("javascript:alert(1)", "only http and https"),
        ("https:///x", "no host"),
        ("https://push.example.com:99999/x", "not a valid URL"),
        ("https://push.example.com/" + "a" * 3000, "too long"),
    ],
)
def test_anything_else_is_refused_with_a_reason(url: str, words: str) -> None:
    with pytest.raises(OutboundRefused) as refused:
        policy("https://push.example.com").check(url)
    assert words in refused.value.reason


@pytest.mark.parametrize(
    "host", ["sneaky.example.com", "inside.example.com", "v6.example.com", "meta.example.com", "gone.example.com"]
)
def test_a_listed_name_that_resolves_inside_a_private_range_is_refused(host: str) -> None:
    with pytest.raises(OutboundRefused):
        policy(f"https://{host}").check(f"https://{host}/x")


def test_loopback_is_allowed_only_as_the_exact_listed_literal_origin() -> None:
    listed = policy("http://127.0.0.1:8125")
    assert listed.check("http://127.0.0.1:8125/push/1") == "http://127.0.0.1:8125"
    for url in (
        "http://localhost:8125/push/1",
        "http://127.0.0.1:8126/push/1",
        "http://[::1]:8125/push/1",
        "http://127.0.0.2:8125/push/1",
        "https://127.0.0.1:8125/push/1",
    ):
        with pytest.raises(OutboundRefused):
            listed.check(url)


def test_the_defaults_are_the_public_push_services_and_discord_over_https_only() -> None:
    defaults = OutboundPolicy.parse("", resolver({}))
    assert {o[0] for o in defaults.origins} == {"https"} and len(defaults.origins) == len(DEFAULT_ORIGINS)
    assert ("https", "discord.com", 443) in defaults.origins and (
        "https",
        "fcm.googleapis.com",
        443,
    ) in defaults.origins
    with pytest.raises(OutboundRefused):
        defaults.check("http://discord.com/api/webhooks/1/x", resolve=False)


def test_a_listed_origin_with_a_path_is_a_configuration_error() -> None:
    with pytest.raises(ValueError):
        OutboundPolicy.parse("https://push.example.com/path")
