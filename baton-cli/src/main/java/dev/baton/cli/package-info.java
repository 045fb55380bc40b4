/**
 * {@code baton}, Baton's command line for operators (docs/cli.md): {@link dev.baton.cli.BatonCli} is its entry point.
 * Each command is a class of its own; connection and output options are shared mixins; every failure ends in a
 * one-line message and a documented {@link dev.baton.cli.ExitStatus}.
 */
package dev.baton.cli;
