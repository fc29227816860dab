import java.util.*;
import org.apache.commons.math3.distribution.EnumeratedDistribution;
import org.apache.commons.math3.random.AbstractRandomGenerator;
import org.apache.commons.math3.util.Pair;
/** The outputs tests/test_java_random.py expects: java.util.Random(0xDEADBEEF), Collections.shuffle,
 *  commons-math3 EnumeratedDistribution and Math.round, drawn in the order the test draws them.
 *  javac -cp "$(cat /work/arx-build/CLASSPATH)" -d OUT JavaRandomOutputs.java && java -cp "...:OUT" JavaRandomOutputs */
public class JavaRandomOutputs {
  public static void main(String[] a) {
    Random r = new Random(0xDEADBEEF);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 5; i++) sb.append(r.nextDouble()).append(", ");
    System.out.println("doubles " + sb);
    sb = new StringBuilder();
    int[] bounds = {1, 2, 7, 16, 100, 124, 1 << 30, 1500000001, 3};
    for (int b : bounds) sb.append(r.nextInt(b)).append(", ");
    System.out.println("ints " + sb);
    List<Integer> l = new ArrayList<>(); for (int i = 0; i < 10; i++) l.add(i);
    Collections.shuffle(l, r);
    System.out.println("shuffle " + l);
    final Random rr = r;
    List<Pair<String, Double>> el = new ArrayList<>();
    double[] w = {1.0, 0.0, 0.25, 0.5, 0.75, 0.0};
    for (int i = 0; i < w.length; i++) el.add(new Pair<>("s" + i, w[i]));
    EnumeratedDistribution<String> d = new EnumeratedDistribution<>(new AbstractRandomGenerator() {
      public double nextDouble() { return rr.nextDouble(); }
      public void setSeed(long s) {} }, el);
    sb = new StringBuilder();
    for (int i = 0; i < 12; i++) sb.append(d.sample()).append(", ");
    System.out.println("samples " + sb);
    sb = new StringBuilder(); for (int i = 0; i < 8; i++) sb.append(r.nextInt(1500000001)).append(", "); System.out.println("rej " + sb);
    System.out.println("after " + r.nextInt(1000));
    System.out.println("round " + Math.round(0.49999999999999994) + " " + Math.round(2.5) + " " + Math.round(1.4999999999999998));
  }
}
