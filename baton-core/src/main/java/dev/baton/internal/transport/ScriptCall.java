package dev.baton.internal.transport;

/**
 * One script with its keys and arguments, built by the typed call of the script's family so that every caller of a
 * script (a single Redis, each master of a Redlock) sends the same {@code KEYS} and {@code ARGV}.
 *
 * @param script the script, which also says how its reply is read
 * @param keys   its {@code KEYS}
 * @param args   its {@code ARGV}
 */
public record ScriptCall(Script script, String[] keys, String... args) {
}
