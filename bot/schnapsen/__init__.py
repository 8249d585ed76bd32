"""The Discord shell of the game: slash commands, buttons, messages. Only this package and bot/client.py
import discord."""
