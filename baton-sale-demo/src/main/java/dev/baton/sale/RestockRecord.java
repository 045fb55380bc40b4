package dev.baton.sale;

import io.swagger.v3.oas.annotations.media.Schema;

import java.time.Instant;
import java.util.Objects;

/**
 * One run of the scheduled restock.
 *
 * @param instance     the Baton instance id of the service instance that ran it
 * @param startedAt    when the run started
 * @param fencingToken the fencing token of the {@code restock} lock for this run
 */
@Schema(description = "One run of the scheduled restock")
public record RestockRecord(
        @Schema(description = "Baton instance id of the service instance that ran it") String instance,
        @Schema(description = "When the run started") Instant startedAt,
        @Schema(description = "Fencing token of the restock lock for this run", example = "12") long fencingToken) {

    private static final String SEPARATOR = " ";

    /**
     * Checks the components.
     *
     * @param instance     see the record's components
     * @param startedAt    see the record's components
     * @param fencingToken see the record's components
     * @throws NullPointerException if {@code instance} or {@code startedAt} is null
     */
    public RestockRecord {
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(startedAt, "startedAt");
    }

    /** @return the record as one entry of the Redis list: instance, start and token, separated by spaces */
    String encode() {
        return instance + SEPARATOR + startedAt + SEPARATOR + fencingToken;
    }

    /**
     * Reads an entry written by {@link #encode()}.
     *
     * @param entry the list entry
     * @return the record
     * @throws IllegalArgumentException if the entry is not in that form
     */
    static RestockRecord decode(String entry) {
        String[] fields = entry.split(SEPARATOR);
        if (fields.length != 3) {
            throw new IllegalArgumentException("not a restock record: " + entry);
        }
        return new RestockRecord(fields[0], Instant.parse(fields[1]), Long.parseLong(fields[2]));
    }
}
