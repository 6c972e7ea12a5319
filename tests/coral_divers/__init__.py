"""Tests of the Coral Divers rules engine, reports and bot."""
