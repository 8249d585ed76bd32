"""A fake of Discord's REST API and gateway for end-to-end tests of the real discord.py client.

Typical use (the ``fake_discord`` fixture from ``devtools.fakediscord.plugin`` starts the server and redirects
discord.py to it)::

    guild = fake_discord.add_guild("Server", preferred_locale="de")
    channel = guild.add_text_channel("schnapsen")
    alice = fake_discord.add_user("alice", dms_open=True, locale="en-US")
    guild.add_member(alice, permissions=discord.Permissions(manage_guild=True).value)
    bot = await fake_discord.start_client(make_bot())          # ready when this returns
    command = await fake_discord.slash(alice, channel, "schnapsen", "new", preset="standard")
    table = await command.wait_original()                       # or: await command.wait_response()
    click = await fake_discord.click(alice, table, label="Join")
    await click.wait_response()
    dm = await fake_discord.wait_for_dm(alice, lambda m: m.buttons)
    await fake_discord.wait_for(lambda: "Trump" in table.visible_text)

Restart: ``await fake_discord.stop_client(bot)`` and ``start_client`` a NEW client instance.

Threads: the bot opens public threads (``POST /channels/{id}/threads``, needing Create Public Threads), posts
in them (Send Messages in Threads), archives, locks or deletes them (``PATCH``/``DELETE /channels/{id}``, with
Discord's permission rules and 50083 for an edit in an archived thread); ``channel.threads`` lists them,
``guild.add_thread`` plus ``announce_thread`` is a person's thread, and ``fake.bot_permissions`` or a channel's
``bot_permissions`` say what the bot may do (also in ``app_permissions``).

Faults: ``fail_next`` (the next requests fail), ``rate_limit`` (a Discord-like bucket), ``random_faults``
(429s and 5xx at random, some 5xx after the request took effect), ``close_dms(user)`` (403 50007 from then on),
``drop_gateway(code, resumable=...)``, ``invalidate_session(resumable=...)`` (op 9), ``request_reconnect``
(op 7), ``start(refuse_connections_for=seconds)`` (every connection refused until then, or until
``accept_connections()``: Discord unreachable at a bot's start). A message create with ``enforce_nonce`` returns
the message made earlier with the same nonce. ``GET /guilds/{id}`` and ``GET /channels/{id}`` show a channel's
``bot_permissions`` as the bot's overwrite there (what ``python -m bot doctor`` reads).

Discord's rate limits (``limits.py``): ``fake.enforce_limits(**settings)`` turns on the global limit per bot
token (interaction routes exempt), the per-channel and per-webhook route buckets, the 30046 limit on edits of
messages older than an hour and the invalid-request ban, each answering 429 with Discord's headers and body;
off by default. ``fake.advance_clock(seconds)`` moves the fake's clock (messages age, windows and bans pass);
``fake.limiter.stats`` counts the 429s by kind and route.

Latency (``latency.py``): ``FakeDiscord(latency=0.08)`` or ``fake.latency = 0.08`` puts 80 ms each way between
the bot and the fake: a REST call takes effect 80 ms after it was sent (``RecordedRequest.effective_at``) and
its answer comes 80 ms later; a gateway dispatch (a click's INTERACTION_CREATE) reaches the bot 80 ms after
it was emitted (``FakeInteraction.created_at``, the moment of the click). Off by default. Every message keeps
when each of its versions took effect (``FakeMessage.changed_at``, monotonic), history or not; every
interaction how it was answered (``response.type``, ``response.at``).

Discord's own API spec (``spec.py``): every request is checked against Discord's published OpenAPI spec
(devtools/discord_api_spec/): route and method, path parameters, query, JSON body or multipart ``payload_json``;
one that does not fit is answered 400 50035 with the errors by field (404/405 for a route or method Discord
lacks) and listed in ``fake.spec_violations``, which fails the test (``take_spec_violations`` for one sent on
purpose). ``FakeDiscord(check_spec=False)`` turns it off. A ``wait_for`` or ``wait_event`` that times out adds
what ``fake.diagnostics`` report (the harness: where each table stands).
"""

from devtools.fakediscord.components import describe_buttons, find_button, iter_components
from devtools.fakediscord.limits import DiscordLimits, FakeClock, RouteBucket
from devtools.fakediscord.server import (
    DiscordError,
    FakeDiscord,
    FaultRule,
    RandomFaultRule,
    RateLimitRule,
    RecordedRequest,
)
from devtools.fakediscord.state import (
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    InteractionResponse,
    MessageSnapshot,
)

__all__ = [
    "DiscordError",
    "DiscordLimits",
    "FakeAttachment",
    "FakeChannel",
    "FakeClock",
    "FakeDiscord",
    "FakeGuild",
    "FakeInteraction",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "FaultRule",
    "InteractionResponse",
    "MessageSnapshot",
    "RandomFaultRule",
    "RateLimitRule",
    "RecordedRequest",
    "RouteBucket",
    "describe_buttons",
    "find_button",
    "iter_components",
]
