package dev.baton.internal.transport;

import dev.baton.BatonException;
import dev.baton.BatonUnavailableException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import java.time.Duration;

/**
 * A failed first connection through Sentinel told as what it is, and who refused: the sentinels (their password,
 * the master name they were asked for, not being sentinels at all) or the master they named (the data nodes'
 * password). Two passwords are in play behind Sentinel, and "refused the credentials" alone would leave the user to
 * guess which one is wrong. Redis's replies name no credentials, so they may be quoted; nothing else from the causes is.
 */
final class SentinelLookupFailure {

    private SentinelLookupFailure() {
    }

    /**
     * What the failure means, or null if it is none of the cases above.
     *
     * @param address               the redis-sentinel address Baton connected with
     * @param timeout               the command timeout, which bounded each sentinel's answer
     * @param sentinelPasswordGiven whether a password was given for the sentinels
     * @param dataPasswordGiven     whether a password was given for the data nodes
     */
    static RuntimeException explain(Throwable failure, RedisAddress address, Duration timeout,
                                    boolean sentinelPasswordGiven, boolean dataPasswordGiven) {
        String sentinels = "the sentinels at " + String.join(",", address.hosts().stream()
                .map(RedisAddress.HostAndPort::toString).toList());
        String theSentinels = "The" + sentinels.substring(3);
        String master = address.master().orElse("?");
        boolean[] fromSentinel = new boolean[1];
        Throwable replied = Causes.find(failure, (t, underSentinel) -> {
            if (t instanceof RedisCommandExecutionException && t.getMessage() != null) {
                fromSentinel[0] = underSentinel;
                return true;
            }
            return false;
        });
        if (replied == null) {
            if (Causes.find(failure, t -> String.valueOf(t.getMessage())
                    .startsWith("Cannot connect to a Redis Sentinel")) != null) {
                // Lettuce asks the sentinels one after the other, each within the timeout.
                boolean silent = Causes.find(failure, t -> t instanceof RedisCommandTimeoutException) != null;
                return new BatonUnavailableException("None of " + sentinels + (silent ? " answered within "
                        + timeout : " could be reached") + " (looking for master '" + master + "')", failure);
            }
            return null;
        }
        String reply = replied.getMessage();
        if (reply.contains("No such master with that name")) {
            return new BatonException(theSentinels + " know no master named '" + master + "': check the name after '#' "
                    + "in the uri (SENTINEL MASTERS on a sentinel lists the ones it monitors)", failure);
        }
        if (reply.contains("unknown command") && reply.toUpperCase(java.util.Locale.ROOT).contains("SENTINEL")) {
            return new BatonException(theSentinels + " are not all sentinels: one answered that it does not know the "
                    + "SENTINEL command (" + reply + "); for a Redis server, use a redis:// or rediss:// uri", failure);
        }
        boolean wrong = reply.startsWith("WRONGPASS") || reply.contains("invalid password");
        boolean missing = reply.startsWith("NOAUTH");
        boolean unexpected = reply.contains("without any password configured");
        if (!wrong && !missing && !unexpected) {
            return null;
        }
        if (fromSentinel[0]) {
            String hint = "; the uri's credentials and password(...) are the data nodes', the sentinels' go to "
                    + "BatonConfig.Builder.sentinelPassword(...)";
            if (unexpected) {
                return new BatonException(theSentinels + " have no password set, but sentinelPassword(...) gave one: "
                        + "drop it", failure);
            }
            if (missing && !sentinelPasswordGiven) {
                return new BatonException(theSentinels + " require authentication, and no password was given for "
                        + "them" + hint, failure);
            }
            return new BatonException(theSentinels + " refused the credentials given for the sentinels: wrong "
                    + "sentinelPassword (or sentinelUsername), or that user is disabled there" + hint, failure);
        }
        String at = "The master '" + master + "' that " + sentinels + " named";
        if (unexpected) {
            return new BatonException(at + " has no password set for its default user, but a password was given: "
                    + "drop it, or give the name of an ACL user that has one", failure);
        }
        if (missing && !dataPasswordGiven) {
            return new BatonException(at + " requires authentication, and no password was given for the data "
                    + "nodes: put it in the uri (redis-sentinel://:password@host:port,...#master) or give it as the "
                    + "configuration's password", failure);
        }
        return new BatonException(at + " refused the credentials given for the data nodes: wrong user name or "
                + "password (of the uri or password(...)), or the user is disabled", failure);
    }
}
