# The bot in a container: the install of docs/deploy.md (a virtual environment in /opt/schnapsen/.venv with
# the versions of constraints.txt), run as the unprivileged user schnapsen, the SQLite database on the volume
# /data. tests/test_deploy.py runs these RUN steps and the CMD in a Debian 12 chroot. Usage: compose.yaml.
FROM python:3.11-slim-bookworm

RUN useradd --system --home-dir /opt/schnapsen --shell /usr/sbin/nologin schnapsen \
    && install -d -o schnapsen -g schnapsen /opt/schnapsen /data

WORKDIR /opt/schnapsen
COPY --chown=schnapsen:schnapsen . .
# The user is made above, in the image (hadolint cannot know it):
# hadolint ignore=DL3066
USER schnapsen
# The PostgreSQL driver is included, so one image serves both databases.
RUN python3 -m venv .venv \
    && .venv/bin/pip install --no-cache-dir -c constraints.txt -e ".[postgres]"

ENV DATABASE_PATH=/data/schnapsen.sqlite3 \
    PYTHONUNBUFFERED=1
VOLUME ["/data"]
# As under systemd: SIGINT stops the bot cleanly (every action is stored before it is announced anyway).
STOPSIGNAL SIGINT
CMD [".venv/bin/python", "-m", "bot"]
