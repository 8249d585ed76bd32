pytest_plugins = ["devtools.fakediscord.plugin"]
