// Top/bottom coding as ARX 3.9.2 does it: the first level of an interval hierarchy
// (HierarchyBuilderIntervalBased with Range(snapFrom, bottomTopCodingFrom, minMaxValue)).
// Our own code over the ARX framework, for benchmarks/topcoding_arx.py (issue 34).
//
//   java -cp "$(cat $BUILD/CLASSPATH):DIR" TopBottomCoding integer|decimal BOTTOM|- TOP|- VALUES
//
// VALUES holds one value per line; prints "value<TAB>label" per line. In-range values fall
// into one interval [bottom, top[ (its label shows they were not coded); values below
// BOTTOM get ARX's "<BOTTOM" and values at or above TOP its ">=TOP". A missing bound ("-")
// is the smallest value / just above the largest, so nothing is coded on that side.

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;

import org.deidentifier.arx.DataType;
import org.deidentifier.arx.aggregates.HierarchyBuilderIntervalBased;
import org.deidentifier.arx.aggregates.HierarchyBuilderIntervalBased.Range;

public class TopBottomCoding {

    public static void main(String[] args) throws Exception {
        List<String> lines = Files.readAllLines(Paths.get(args[3]));
        String[] values = lines.toArray(new String[0]);
        String[][] rows = args[0].equals("integer") ? integers(args[1], args[2], values)
                                                    : decimals(args[1], args[2], values);
        StringBuilder out = new StringBuilder();
        for (String[] row : rows) {
            out.append(row[0]).append('\t').append(row[1]).append('\n');
        }
        System.out.print(out);
    }

    private static String[][] integers(String bottom, String top, String[] values) {
        long lo = Long.MAX_VALUE, hi = Long.MIN_VALUE;
        for (String v : values) {
            Long x = DataType.INTEGER.parse(v);
            if (x != null) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
        }
        long b = bottom.equals("-") ? lo : Long.parseLong(bottom);
        long t = top.equals("-") ? hi + 1 : Long.parseLong(top);
        HierarchyBuilderIntervalBased<Long> builder = HierarchyBuilderIntervalBased.create(
            DataType.INTEGER, new Range<Long>(b, b, Long.MIN_VALUE / 4),
            new Range<Long>(t, t, Long.MAX_VALUE / 4));
        builder.addInterval(b, t);
        return builder.build(values).getHierarchy();
    }

    private static String[][] decimals(String bottom, String top, String[] values) {
        double lo = Double.MAX_VALUE, hi = -Double.MAX_VALUE;
        for (String v : values) {
            Double x = DataType.DECIMAL.parse(v);
            if (x != null) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
        }
        double b = bottom.equals("-") ? lo : Double.parseDouble(bottom);
        double t = top.equals("-") ? hi + 1 : Double.parseDouble(top);
        HierarchyBuilderIntervalBased<Double> builder = HierarchyBuilderIntervalBased.create(
            DataType.DECIMAL, new Range<Double>(b, b, -1e300), new Range<Double>(t, t, 1e300));
        builder.addInterval(b, t);
        return builder.build(values).getHierarchy();
    }
}
