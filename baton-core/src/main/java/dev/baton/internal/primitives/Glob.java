package dev.baton.internal.primitives;

/**
 * A name pattern of {@code BatonAdmin.list}, with Redis's glob syntax: {@code *} any characters, {@code ?} one,
 * {@code [abc]} / {@code [a-z]} / {@code [^a]} a set, {@code \} escapes the next character. Matched against names
 * as the application gave them (after the key's escaping is undone), so that what an operator types is what the
 * application wrote. Immutable.
 */
final class Glob {
    private final String pattern;

    Glob(String pattern) {
        this.pattern = pattern;
    }

    boolean matches(String name) {
        return match(0, name, 0);
    }

    /** Backtracking over {@code *}; names and patterns are short (names at most 1,024 bytes). */
    private boolean match(int p, String s, int i) {
        while (p < pattern.length()) {
            char c = pattern.charAt(p);
            if (c == '*') {
                while (p < pattern.length() && pattern.charAt(p) == '*') {
                    p++;
                }
                if (p == pattern.length()) {
                    return true;
                }
                for (int k = i; k <= s.length(); k++) {
                    if (match(p, s, k)) {
                        return true;
                    }
                }
                return false;
            }
            if (i >= s.length()) {
                return false;
            }
            char ch = s.charAt(i);
            if (c == '?') {
                p++;
            } else if (c == '[') {
                int end = p + 1;
                boolean negate = end < pattern.length() && (pattern.charAt(end) == '^' || pattern.charAt(end) == '!');
                if (negate) {
                    end++;
                }
                boolean found = false;
                int q = end;
                while (q < pattern.length() && (pattern.charAt(q) != ']' || q == end)) {
                    char lo = pattern.charAt(q);
                    if (lo == '\\' && q + 1 < pattern.length()) {
                        lo = pattern.charAt(++q);
                    }
                    if (q + 2 < pattern.length() && pattern.charAt(q + 1) == '-' && pattern.charAt(q + 2) != ']') {
                        char hi = pattern.charAt(q + 2);
                        found |= ch >= Math.min(lo, hi) && ch <= Math.max(lo, hi);
                        q += 3;
                    } else {
                        found |= ch == lo;
                        q++;
                    }
                }
                if (q >= pattern.length() || found == negate) {
                    return false; // an unclosed set matches nothing
                }
                p = q + 1;
            } else {
                if (c == '\\' && p + 1 < pattern.length()) {
                    c = pattern.charAt(++p);
                }
                if (c != ch) {
                    return false;
                }
                p++;
            }
            i++;
        }
        return i == s.length();
    }
}
