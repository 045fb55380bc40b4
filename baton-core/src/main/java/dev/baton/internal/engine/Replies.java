package dev.baton.internal.engine;

import java.util.List;

/**
 * The reply shapes that the scripts of every family share, read in one place: a renewal script answers one flag per
 * hold of its batch, an abandon script answers {@code {withdrawn, orphan}}.
 */
public final class Replies {

    private Replies() {
    }

    /** A renewal script's reply: for each hold of the batch, in order, whether it was renewed (1) or not (0). */
    public static boolean[] renewed(List<Long> reply) {
        boolean[] renewed = new boolean[reply.size()];
        for (int i = 0; i < renewed.length; i++) {
            renewed[i] = reply.get(i) == 1L;
        }
        return renewed;
    }

    /**
     * The orphaned grant an abandon script reports: the second of {@code {withdrawn, orphan}}, the fencing token of a
     * hold of the attempt's owner that nobody will use, or 0 ({@link LockDriver#abandon}).
     */
    public static long orphanIn(List<Long> abandonReply) {
        return abandonReply.get(1);
    }
}
