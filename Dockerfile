# The bot in a container: the install of docs/deploy.md (a virtual environment in /opt/schnapsen/.venv with
# the versions of constraints.txt), run as the unprivileged user schnapsen, the SQLite database on the volume
# /data. Two stages: "build" has a C compiler, so the install compiles the AI's solver (docs/ai.md, "The
# accelerator"); the image is the slim base with the built checkout copied in, and no compiler.
# tests/test_deploy.py runs these steps and the CMD in Debian 12 chroots. Usage: compose.yaml.
FROM python:3.11-slim-bookworm AS build

# The base image has Python's headers; mypyc's build needs a C compiler and the C library's headers. Debian's
# versions of them follow the base image (a pin would break at its next point release):
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --system --home-dir /opt/schnapsen --shell /usr/sbin/nologin schnapsen \
    && install -d -o schnapsen -g schnapsen /opt/schnapsen

WORKDIR /opt/schnapsen
COPY --chown=schnapsen:schnapsen . .
# The user is made above, in the image (hadolint cannot know it):
# hadolint ignore=DL3066
USER schnapsen
# The PostgreSQL driver is included, so one image serves both databases. mypyc's C files (build/) are not
# needed after the install; the last command fails the build if the solver was not compiled.
RUN python3 -m venv .venv \
    && .venv/bin/pip install --no-cache-dir -c constraints.txt -e ".[postgres]" \
    && rm -rf build \
    && .venv/bin/python -c "import engine.ai.solver as s; assert s.KIND == 'compiled', s.KIND"

FROM python:3.11-slim-bookworm

RUN useradd --system --home-dir /opt/schnapsen --shell /usr/sbin/nologin schnapsen \
    && install -d -o schnapsen -g schnapsen /opt/schnapsen /data

WORKDIR /opt/schnapsen
# The checkout with its virtual environment and the compiled solver, at the same path (the environment's
# scripts and the editable install name it).
COPY --from=build --chown=schnapsen:schnapsen /opt/schnapsen /opt/schnapsen
# hadolint ignore=DL3066
USER schnapsen

ENV DATABASE_PATH=/data/schnapsen.sqlite3 \
    PYTHONUNBUFFERED=1
VOLUME ["/data"]
# As under systemd: SIGINT stops the bot cleanly (every action is stored before it is announced anyway).
STOPSIGNAL SIGINT
CMD [".venv/bin/python", "-m", "bot"]
