"""Sessions named and decorated as upstream's noxfile.py; the bodies are left out."""

import nox

nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["lint"]


@nox.session(name="common-wheels")
def common_wheels(session: nox.Session) -> None: ...


@nox.session(python=["3.10", "3.11", "3.12", "3.13", "3.14", "3.15", "3.14t", "pypy3"])
def test(session: nox.Session) -> None: ...


@nox.session
def typecheck(session: nox.Session) -> None: ...


@nox.session
def docs(session: nox.Session) -> None: ...


@nox.session(name="docs-live")
def docs_live(session: nox.Session) -> None: ...


@nox.session
def lint(session: nox.Session) -> None: ...


@nox.session
def vendoring(session: nox.Session) -> None: ...


@nox.session
def coverage(session: nox.Session) -> None: ...


@nox.session(name="prepare-release")
def prepare_release(session: nox.Session) -> None: ...


@nox.session(name="build-release")
def build_release(session: nox.Session) -> None: ...


@nox.session(name="upload-release")
def upload_release(session: nox.Session) -> None: ...
