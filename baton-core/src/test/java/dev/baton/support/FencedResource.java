package dev.baton.support;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * What a user's resource does with fencing tokens: accept a write only if its token is higher than any token it has
 * accepted before. Kept in Redis under its own keys, apart from Baton's.
 */
public final class FencedResource {
    private static final String WRITE = """
            local last = tonumber(redis.call('GET', KEYS[1]) or '0')
            local token = tonumber(ARGV[1])
            if token < last or (token == last and ARGV[3] ~= 'again') then return 0 end
            redis.call('SET', KEYS[1], ARGV[1])
            redis.call('SET', KEYS[2], ARGV[2])
            return 1
            """;

    private final RedisCommands<String, String> redis;
    private final String name;

    public FencedResource(RedisCommands<String, String> redis, String name) {
        this.redis = redis;
        this.name = name;
    }

    /** @return true if the write was accepted */
    public boolean write(long token, String value) {
        return write(token, value, "once");
    }

    /**
     * A write that is also accepted with the token accepted last, as a leader that writes many times with one epoch
     * needs: refused only if a higher token has been accepted.
     *
     * @return true if the write was accepted
     */
    public boolean writeAtLeast(long token, String value) {
        return write(token, value, "again");
    }

    private boolean write(long token, String value, String sameToken) {
        Long accepted = redis.eval(WRITE, ScriptOutputType.INTEGER,
                new String[] {"resource:" + name + ":token", "resource:" + name + ":value"},
                Long.toString(token), value, sameToken);
        return accepted == 1L;
    }

    /** @return the highest token accepted so far, 0 if none */
    public long token() {
        String token = redis.get("resource:" + name + ":token");
        return token == null ? 0 : Long.parseLong(token);
    }

    public String value() {
        return redis.get("resource:" + name + ":value");
    }
}
