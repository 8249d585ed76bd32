pytest_plugins = ["tests.fakediscord.plugin"]
