package dev.baton.sale;

import java.util.HashMap;
import java.util.Map;

/**
 * One IETF {@code RateLimit} or {@code RateLimit-Policy} field value with one item: a quoted policy name and
 * integer parameters, e.g. {@code "buyer";q=5;w=60}.
 *
 * @param name       the policy name, unquoted
 * @param parameters the parameters by key
 */
record RateLimitField(String name, Map<String, Long> parameters) {

    /**
     * @param field the header's value
     * @return the parsed value
     * @throws IllegalArgumentException if it is not of that form
     */
    static RateLimitField parse(String field) {
        String[] parts = field.trim().split(";");
        String name = parts[0].trim();
        if (name.length() < 2 || !name.startsWith("\"") || !name.endsWith("\"")) {
            throw new IllegalArgumentException("no quoted policy name in " + field);
        }
        Map<String, Long> parameters = new HashMap<>();
        for (int i = 1; i < parts.length; i++) {
            String[] pair = parts[i].trim().split("=", 2);
            if (pair.length != 2) {
                throw new IllegalArgumentException("not a key=value parameter in " + field);
            }
            parameters.put(pair[0], Long.parseLong(pair[1]));
        }
        return new RateLimitField(name.substring(1, name.length() - 1), Map.copyOf(parameters));
    }

    /**
     * @param key the parameter's key
     * @return its value
     * @throws IllegalArgumentException if the field has no such parameter
     */
    long parameter(String key) {
        Long value = parameters.get(key);
        if (value == null) {
            throw new IllegalArgumentException("no parameter " + key + " in " + this);
        }
        return value;
    }
}
