"""The fallback language (Settings.default_locale) and the one list of languages."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from app import i18n
from app.campaigns import service as campaigns
from app.config import Settings
from app.db import Base
from app.main import create_app


def test_the_fallback_is_configurable_and_only_a_fallback() -> None:
    assert i18n.negotiate(None, default="de") == "de"
    assert i18n.negotiate("fr", default="da") == "da"
    assert i18n.negotiate("en-GB", default="de") == "en"  # the browser's choice still wins
    assert i18n.negotiate("fr", "da", default="de") == "da"  # and the user's own over both


def test_an_unknown_default_locale_is_refused_at_start() -> None:
    with pytest.raises(ValidationError):
        Settings(default_locale="fr")


def test_campaign_languages_are_the_supported_ones() -> None:
    assert campaigns.LANGUAGES is i18n.LANGUAGES and tuple(i18n.LANGUAGES) == i18n.SUPPORTED


def test_pages_fall_back_to_the_configured_language(settings: Settings) -> None:
    application = create_app(settings.model_copy(update={"default_locale": "de"}))
    Base.metadata.create_all(application.state.engine)
    try:
        with TestClient(application) as client:
            assert '<html lang="de">' in client.get("/signin", headers={"Accept-Language": "fr"}).text
            assert '<html lang="da">' in client.get("/signin", headers={"Accept-Language": "da"}).text
    finally:
        application.state.engine.dispose()
