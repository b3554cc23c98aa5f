"""Rendering only: JSON is canonical; terminal, Markdown and HTML render from it."""
