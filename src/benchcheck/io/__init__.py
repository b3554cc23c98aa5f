"""Readers: file formats → the dataset model."""
