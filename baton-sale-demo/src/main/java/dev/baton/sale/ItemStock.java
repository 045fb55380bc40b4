package dev.baton.sale;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * An item's stock as the store holds it.
 *
 * @param item             the item's name
 * @param stock            units left
 * @param lowestStock      the lowest stock ever written since the item was created or an administrator last set it;
 *                         never negative while the lock does its job
 * @param lastFencingToken the fencing token of the last accepted write, or 0 when none is on record
 */
@Schema(description = "An item's stock")
public record ItemStock(
        @Schema(description = "Item name", example = "widget") String item,
        @Schema(description = "Units left", example = "42") long stock,
        @Schema(description = "Lowest stock ever written since the item was created or last set by an administrator",
                example = "42") long lowestStock,
        @Schema(description = "Fencing token of the last accepted write (0: none on record)", example = "58")
        long lastFencingToken) {
}
