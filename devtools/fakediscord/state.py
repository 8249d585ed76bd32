"""What the fake Discord knows: users, guilds, channels, messages and interactions.

Every object renders itself as the JSON payload Discord would send for it, so the server only has to pick
the right object and call ``payload()``.
"""

from __future__ import annotations

import datetime
import itertools
import mimetypes
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import discord

from devtools.fakediscord.components import find_button, iter_components

if TYPE_CHECKING:
    from devtools.fakediscord.server import FakeDiscord

DISCORD_EPOCH_MS = 1_420_070_400_000
EPHEMERAL_FLAG = 1 << 6
LOADING_FLAG = 1 << 7
DEFAULT_ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024
# How long a test waits by default for what it awaits (a response, a message, a state): a wait ends as soon as
# what it waits for happens, so this is only how long a failing test takes to say so. 5 s was too short on a
# loaded machine (a click's answer and a command's follow-up took longer at load 12 on 2 cores).
WAIT_SECONDS = 30.0

# What @everyone may do on a freshly created server: talk, read, attach and use commands, manage nothing.
DEFAULT_EVERYONE_PERMISSIONS = discord.Permissions(
    create_instant_invite=True,
    add_reactions=True,
    view_channel=True,
    send_messages=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
    use_external_emojis=True,
    change_nickname=True,
    use_application_commands=True,
    send_messages_in_threads=True,
    create_public_threads=True,
).value

# What the bot was granted by its invite link.
DEFAULT_BOT_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
    use_external_emojis=True,
    add_reactions=True,
    use_application_commands=True,
).value

ALL_PERMISSIONS = discord.Permissions.all().value
ADMINISTRATOR = discord.Permissions(administrator=True).value


class SnowflakeFactory:
    """Strictly increasing snowflakes whose timestamp part is the current time, like Discord's."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._last = 0
        self.clock = clock  # unix seconds

    def next(self) -> int:
        now_ms = int(self.clock() * 1000) - DISCORD_EPOCH_MS
        candidate = now_ms << 22
        self._last = max(candidate, self._last + 1)
        return self._last

    def next_on_shard(self, shard_id: int, shard_count: int) -> int:
        """The next snowflake whose guild would be on ``shard_id`` of ``shard_count`` (its timestamp moved on
        by less than ``shard_count`` ms)."""
        timestamp = self.next() >> 22
        timestamp += (shard_id - timestamp) % shard_count
        self._last = max(timestamp << 22, self._last + 1)
        return self._last


def iso_now(clock: Callable[[], float] | None = None) -> str:
    """Now as Discord writes a timestamp; by ``clock`` (unix seconds) when given, e.g. the fake's."""
    if clock is None:
        return datetime.datetime.now(datetime.UTC).isoformat()
    return datetime.datetime.fromtimestamp(clock(), datetime.UTC).isoformat()


def image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height of a PNG, which is all the bot renders; Discord reports these for images."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return width, height
    return None


@dataclass(eq=False)
class FakeUser:
    id: int
    name: str
    global_name: str | None = None
    bot: bool = False
    dms_open: bool = True
    locale: str = "en-US"

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": self.global_name,
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
            "flags": 0,
        }

    def __repr__(self) -> str:
        return f"<FakeUser {self.name} {self.id}>"


@dataclass(eq=False)
class FakeRole:
    id: int
    name: str
    permissions: int
    position: int = 0

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "managed": False,
            "mentionable": False,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
        }


@dataclass(eq=False)
class FakeMember:
    user: FakeUser
    guild: FakeGuild
    roles: list[FakeRole] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=iso_now)

    @property
    def permissions(self) -> int:
        """Guild-level permissions the way Discord computes them (no channel overwrites are modelled)."""
        if self.guild.owner_id == self.user.id:
            return ALL_PERMISSIONS
        value = self.guild.everyone_role.permissions
        for role in self.roles:
            value |= role.permissions
        return ALL_PERMISSIONS if value & ADMINISTRATOR else value

    def payload(self, *, with_permissions: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "user": self.user.payload(),
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "roles": [str(role.id) for role in self.roles],
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if with_permissions:
            data["permissions"] = str(self.permissions)
        return data


class FakeGuild:
    def __init__(self, fake: FakeDiscord, guild_id: int, name: str, owner: FakeUser | None,
                 preferred_locale: str) -> None:
        self.fake = fake
        self.id = guild_id
        self.name = name
        self.owner_id = owner.id if owner is not None else fake.ids.next()
        self.preferred_locale = preferred_locale
        # The @everyone role shares the guild's id, as on Discord.
        self.everyone_role = FakeRole(guild_id, "@everyone", DEFAULT_EVERYONE_PERMISSIONS)
        self.roles: list[FakeRole] = [self.everyone_role]
        self.channels: dict[int, FakeChannel] = {}
        self.threads: dict[int, FakeChannel] = {}  # threads not deleted, archived ones included
        self.members: dict[int, FakeMember] = {}
        self.joined_at = iso_now()
        bot_role = self.add_role(fake.bot_user.name, fake.bot_permissions)
        self.members[fake.bot_user.id] = FakeMember(fake.bot_user, self, [bot_role])
        if owner is not None:
            self.add_member(owner)

    def add_role(self, name: str, permissions: int = 0) -> FakeRole:
        role = FakeRole(self.fake.ids.next(), name, permissions, position=len(self.roles))
        self.roles.append(role)
        return role

    def add_text_channel(self, name: str) -> FakeChannel:
        channel = FakeChannel(self.fake, self.fake.ids.next(), 0, name=name, guild=self,
                              position=len(self.channels))
        self.channels[channel.id] = channel
        self.fake.channels[channel.id] = channel
        return channel

    def add_thread(self, parent: FakeChannel, name: str, owner: FakeUser) -> FakeChannel:
        """A public thread someone opened in ``parent`` (the bot hears of it with ``fake.announce_thread``)."""
        thread = FakeChannel(self.fake, self.fake.ids.next(), 11, name=name, guild=self, parent=parent,
                             owner_id=owner.id)
        self.threads[thread.id] = thread
        self.fake.channels[thread.id] = thread
        return thread

    def add_member(self, user: FakeUser, *, roles: list[FakeRole] | tuple[FakeRole, ...] = (),
                   permissions: int = 0, nick: str | None = None) -> FakeMember:
        """``permissions`` is a shortcut: it gives the member a role of their own holding those bits."""
        member_roles = list(roles)
        if permissions:
            member_roles.append(self.add_role(f"{user.name} role", permissions))
        member = FakeMember(user, self, member_roles, nick=nick)
        self.members[user.id] = member
        return member

    def member(self, user: FakeUser) -> FakeMember:
        try:
            return self.members[user.id]
        except KeyError:
            raise LookupError(f"{user!r} is not a member of guild {self.name!r}") from None

    def payload(self, *, include_all_members: bool) -> dict[str, Any]:
        """The GUILD_CREATE body. Without the members intent Discord sends only the bot's own member."""
        members = list(self.members.values()) if include_all_members else [self.members[self.fake.bot_user.id]]
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "region": None,
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "premium_progress_bar_enabled": False,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "vanity_url_code": None,
            "preferred_locale": self.preferred_locale,
            "features": [],
            "application_id": None,
            "max_members": 500000,
            "joined_at": self.joined_at,
            "large": False,
            "unavailable": False,
            "member_count": len(self.members),
            "roles": [role.payload() for role in self.roles],
            "channels": [channel.payload() for channel in self.channels.values()],
            "members": [member.payload() for member in members],
            "emojis": [],
            "stickers": [],
            "threads": [thread.payload() for thread in self.threads.values() if not thread.archived],
            "voice_states": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    def __repr__(self) -> str:
        return f"<FakeGuild {self.name} {self.id}>"


class FakeChannel:
    """A guild text channel (type 0), a DM channel with one user (type 1) or a public thread (type 11) in a
    text channel."""

    PUBLIC_THREAD = 11

    def __init__(self, fake: FakeDiscord, channel_id: int, channel_type: int, *, name: str | None = None,
                 guild: FakeGuild | None = None, recipient: FakeUser | None = None, position: int = 0,
                 parent: FakeChannel | None = None, owner_id: int | None = None,
                 auto_archive_duration: int = 4320) -> None:
        self.fake = fake
        self.id = channel_id
        self.type = channel_type
        self.name = name
        self.guild = guild
        self.recipient = recipient
        self.position = position
        self.all_messages: list[FakeMessage] = []
        # What the bot may do here, if not what it may do in the whole guild (``fake.bot_permissions``): a
        # channel overwrite. A thread has its parent's.
        self.bot_permissions: int | None = None
        # A thread's own state (Discord's thread_metadata).
        self.parent = parent
        self.owner_id = owner_id
        self.archived = False
        self.locked = False
        self.auto_archive_duration = auto_archive_duration
        self.archive_timestamp = iso_now()
        self.create_timestamp = iso_now()
        self.deleted = False

    @property
    def is_dm(self) -> bool:
        return self.type == 1

    @property
    def is_thread(self) -> bool:
        return self.type == self.PUBLIC_THREAD

    @property
    def threads(self) -> list[FakeChannel]:
        """The threads opened in this channel (not deleted), oldest first."""
        if self.guild is None:
            return []
        return [thread for thread in self.guild.threads.values() if thread.parent is self]

    @property
    def messages(self) -> list[FakeMessage]:
        """What everyone sees in the channel now: not deleted, not ephemeral, oldest first."""
        return [m for m in self.all_messages if not m.deleted and not m.ephemeral]

    def messages_with_nonce(self, nonce: str | int) -> list[FakeMessage]:
        """Every message created in this channel with ``nonce`` (deleted ones included), oldest first."""
        wanted = str(nonce)
        return [m for m in self.all_messages if m.nonce == wanted]

    @property
    def last_message(self) -> FakeMessage | None:
        visible = self.messages
        return visible[-1] if visible else None

    def payload(self) -> dict[str, Any]:
        if self.is_dm:
            assert self.recipient is not None
            return {
                "id": str(self.id),
                "type": 1,
                "recipients": [self.recipient.payload()],
                "last_message_id": None,
                "flags": 0,
            }
        assert self.guild is not None
        if self.is_thread:
            assert self.parent is not None and self.owner_id is not None
            return {
                "id": str(self.id),
                "type": self.type,
                "guild_id": str(self.guild.id),
                "name": self.name,
                "parent_id": str(self.parent.id),
                "owner_id": str(self.owner_id),
                "last_message_id": None,
                "rate_limit_per_user": 0,
                "message_count": len(self.all_messages),
                "total_message_sent": len(self.all_messages),
                "member_count": 1,
                "flags": 0,
                "thread_metadata": {
                    "archived": self.archived,
                    "auto_archive_duration": self.auto_archive_duration,
                    "archive_timestamp": self.archive_timestamp,
                    "locked": self.locked,
                    "create_timestamp": self.create_timestamp,
                },
            }
        return {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild.id),
            "name": self.name,
            "position": self.position,
            # The bot's channel overwrite, when this channel has one: it may do exactly ``bot_permissions``.
            "permission_overwrites": [] if self.bot_permissions is None else [{
                "id": str(self.fake.bot_user.id), "type": 1, "allow": str(self.bot_permissions),
                "deny": str(ALL_PERMISSIONS & ~self.bot_permissions),
            }],
            "nsfw": False,
            "parent_id": None,
            "topic": None,
            "rate_limit_per_user": 0,
            "last_message_id": None,
            "flags": 0,
        }

    def __repr__(self) -> str:
        where = f"DM with {self.recipient.name}" if self.recipient else f"#{self.name}"
        if self.is_thread:
            where = f"thread {self.name!r}{' archived' if self.archived else ''}{' locked' if self.locked else ''}"
        return f"<FakeChannel {where} {self.id}>"


@dataclass(eq=False)
class FakeAttachment:
    id: int
    filename: str
    data: bytes
    channel_id: int
    base_url: str
    description: str | None = None

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def url(self) -> str:
        return f"{self.base_url}/attachments/{self.channel_id}/{self.id}/{self.filename}"

    @property
    def content_type(self) -> str:
        return mimetypes.guess_type(self.filename)[0] or "application/octet-stream"

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type,
            "description": self.description,
        }
        dimensions = image_size(self.data)
        if dimensions is not None:
            data["width"], data["height"] = dimensions
        return data


@dataclass(frozen=True)
class MessageSnapshot:
    """One version of a message as users saw it; ``FakeMessage.history`` holds every version in order."""

    content: str
    embeds: list[dict[str, Any]]
    components: list[dict[str, Any]]
    attachments: tuple[FakeAttachment, ...]
    flags: int
    at: float

    @property
    def filenames(self) -> list[str]:
        return [attachment.filename for attachment in self.attachments]


class FakeMessage:
    def __init__(self, fake: FakeDiscord, message_id: int, channel: FakeChannel, author: FakeUser, *,
                 message_type: int = 0, interaction: FakeInteraction | None = None) -> None:
        self.fake = fake
        self.id = message_id
        self.channel = channel
        self.author = author
        self.type = message_type
        self.interaction = interaction
        self.content = ""
        self.embeds: list[dict[str, Any]] = []
        self.components: list[dict[str, Any]] = []
        self.attachments: list[FakeAttachment] = []
        self.flags = 0
        # When it was made, on the fake's clock (unix seconds): an edit an hour later meets the 30046 rule.
        self.created_at = fake.clock()
        self.timestamp = iso_now(fake.clock)
        self.edited_timestamp: str | None = None
        self.deleted = False
        self.history: list[MessageSnapshot] = []
        # When each version took effect (its creation first, then every edit), on the monotonic clock; kept
        # even when the fake keeps no history (benchmarks), where ``history`` holds the newest version only.
        self.changed_at: list[float] = []
        # The ``nonce`` the bot sent when creating the message (a string, as discord.py sends it), or None.
        self.nonce: str | None = None

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL_FLAG)

    @property
    def loading(self) -> bool:
        """A deferred response still showing "thinking"."""
        return bool(self.flags & LOADING_FLAG)

    @property
    def edit_count(self) -> int:
        return max(0, len(self.history) - 1)

    @property
    def filenames(self) -> list[str]:
        return [attachment.filename for attachment in self.attachments]

    @property
    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in iter_components(self.components) if c.get("type") == 2]

    def button(self, label: str | None = None, *, custom_id: str | None = None,
               custom_id_prefix: str | None = None) -> dict[str, Any]:
        return find_button(self.components, label=label, custom_id=custom_id, custom_id_prefix=custom_id_prefix)

    @property
    def visible_text(self) -> str:
        """Everything a reader sees as text: content, embed texts, component labels and text displays."""
        parts = [self.content]
        for embed in self.embeds:
            parts += [embed.get("title") or "", embed.get("description") or ""]
            parts += [(embed.get(key) or {}).get(attr) or "" for key, attr in (("author", "name"), ("footer", "text"))]
            for embed_field in embed.get("fields") or []:
                parts += [embed_field.get("name") or "", embed_field.get("value") or ""]
        for component in iter_components(self.components):
            parts += [component.get("label") or "", component.get("content") or "",
                      component.get("placeholder") or ""]
            parts += [option.get("label") or "" for option in component.get("options") or []]
        return "\n".join(part for part in parts if part)

    def attachment(self, filename: str) -> FakeAttachment:
        for attachment in self.attachments:
            if attachment.filename == filename:
                return attachment
        raise LookupError(f"no attachment {filename!r} on message {self.id}; it has {self.filenames}")

    def record_version(self) -> None:
        if not self.fake.keep_history:
            # Benchmarks keep only the current version so the fake does not hoard every rendered image.
            self.history.clear()
        now = time.monotonic()
        self.changed_at.append(now)
        self.history.append(MessageSnapshot(
            self.content, list(self.embeds), list(self.components), tuple(self.attachments), self.flags, now,
        ))

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel.id),
            "type": self.type,
            "author": self.author.payload(),
            "content": self.content,
            "embeds": self.embeds,
            "components": self.components,
            "attachments": [attachment.payload() for attachment in self.attachments],
            "flags": self.flags,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "pinned": False,
            "reactions": [],
            "sticker_items": [],
        }
        if self.nonce is not None:
            data["nonce"] = self.nonce
        if self.interaction is not None:
            data["webhook_id"] = str(self.fake.application_id)
            data["application_id"] = str(self.fake.application_id)
            data["interaction_metadata"] = self.interaction.metadata_payload()
        return data

    def __repr__(self) -> str:
        state = " deleted" if self.deleted else (" ephemeral" if self.ephemeral else "")
        return f"<FakeMessage {self.id} in {self.channel!r}{state} content={self.content[:40]!r}>"


@dataclass
class InteractionResponse:
    """The callback the bot answered an interaction with (Discord response types 4-9)."""

    type: int
    data: dict[str, Any]
    files: list[tuple[str, bytes]]
    at: float

    @property
    def ephemeral(self) -> bool:
        return bool(int(self.data.get("flags") or 0) & EPHEMERAL_FLAG)


_interaction_counter = itertools.count(1)


class FakeInteraction:
    """One slash command or component click, and everything the bot showed the user in answer."""

    APPLICATION_COMMAND = 2
    COMPONENT = 3
    MODAL_SUBMIT = 5

    def __init__(self, fake: FakeDiscord, interaction_id: int, interaction_type: int, user: FakeUser,
                 channel: FakeChannel, *, message: FakeMessage | None = None, locale: str,
                 data: dict[str, Any]) -> None:
        self.fake = fake
        self.id = interaction_id
        self.type = interaction_type
        self.user = user
        self.channel = channel
        self.guild = channel.guild
        self.message = message
        self.locale = locale
        self.data = data
        self.token = f"interaction-token-{next(_interaction_counter)}-{interaction_id}"
        # When the person clicked or typed it: the fake emitted the event (monotonic; with ``fake.latency`` the
        # bot gets it that much later). ``response`` says how it was answered: the callback's type and when it
        # took effect in the fake.
        self.created_at = time.monotonic()
        self.response: InteractionResponse | None = None
        self.original: FakeMessage | None = None
        self.followups: list[FakeMessage] = []
        self.rejected_callbacks: list[dict[str, Any]] = []

    @property
    def custom_id(self) -> str | None:
        return self.data.get("custom_id")

    def age(self, seconds: float) -> None:
        """Let ``seconds`` pass for this interaction: e.g. past its token's 15 minutes, after which Discord
        refuses its follow-ups and edits (the fake's ``interaction_token_lifetime``)."""
        self.created_at -= seconds

    @property
    def responded(self) -> bool:
        return self.response is not None

    @property
    def response_type(self) -> int | None:
        return self.response.type if self.response else None

    @property
    def response_latency(self) -> float | None:
        """Seconds from the event being sent to the bot's callback arriving."""
        return None if self.response is None else self.response.at - self.created_at

    @property
    def ephemeral(self) -> bool:
        """Whether the user alone saw the answer (only meaningful once it is answered)."""
        if self.original is not None and self.original is not self.message:
            return self.original.ephemeral
        return self.response is not None and self.response.ephemeral

    @property
    def messages(self) -> list[FakeMessage]:
        """Every message this interaction created or updated: the original response, then followups."""
        found = [self.original] if self.original is not None else []
        return found + [m for m in self.followups if m is not self.original]

    async def wait_response(self, timeout: float = WAIT_SECONDS) -> InteractionResponse:
        try:
            await self.fake.wait_for(lambda: self.response is not None, timeout=timeout,
                                     what=f"a response to interaction {self.describe()}")
        except AssertionError as stuck:
            raise AssertionError(f"{stuck}\n{self.describe()}: {self.answered()}") from None
        assert self.response is not None
        return self.response

    def answered(self) -> str:
        """How the bot answered so far, for a test that waited in vain."""
        refused = self.rejected_callbacks
        return (f"{len(refused)} callback(s) refused (answered already, or later than Discord's "
                f"{self.fake.interaction_deadline:g} s), {time.monotonic() - self.created_at:.1f} s since the "
                f"interaction; response {None if self.response is None else self.response.type}, "
                f"{len(self.followups)} follow-up(s)")

    async def wait_original(self, predicate=None, timeout: float = WAIT_SECONDS) -> FakeMessage:
        """The original response once it exists, is no longer "thinking" and satisfies ``predicate``."""
        def ready() -> FakeMessage | None:
            original = self.original
            if original is None or original.loading:
                return None
            if predicate is not None and not predicate(original):
                return None
            return original

        return await self.fake.wait_for(ready, timeout=timeout,
                                        what=f"the original response of {self.describe()}")

    async def wait_followups(self, count: int = 1, timeout: float = WAIT_SECONDS) -> list[FakeMessage]:
        try:
            await self.fake.wait_for(lambda: len(self.followups) >= count, timeout=timeout,
                                     what=f"{count} followup(s) to {self.describe()}")
        except AssertionError as stuck:
            raise AssertionError(f"{stuck}\n{self.describe()}: {self.answered()}") from None
        return list(self.followups)

    def describe(self) -> str:
        if self.type == self.APPLICATION_COMMAND:
            return f"/{self.data.get('name')} by {self.user.name}"
        return f"click {self.custom_id!r} by {self.user.name}"

    def metadata_payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "user": self.user.payload(),
            "authorizing_integration_owners": self.integration_owners(),
        }
        if self.message is not None:
            data["interacted_message_id"] = str(self.message.id)
        return data

    def integration_owners(self) -> dict[str, str]:
        return {"0": str(self.guild.id) if self.guild is not None else "0"}

    def __repr__(self) -> str:
        return f"<FakeInteraction {self.describe()} response={self.response_type}>"
