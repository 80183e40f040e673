// main() of the Qt widget tests: a QApplication on the offscreen platform, settings (recent
// files, window, parameters) in a fresh folder of their own instead of the user's, then
// GoogleTest. XCORR_TEST_SCREEN=WxH gives the offscreen platform one screen of that size
// (default: its own, 800 x 600).
#include <gtest/gtest.h>

#include <QApplication>
#include <QFile>
#include <QTemporaryDir>

int main(int argc, char** argv) {
  QTemporaryDir config;
  QByteArray platform = "offscreen";
  if (const QByteArray screen = qgetenv("XCORR_TEST_SCREEN"); !screen.isEmpty()) {
    const QList<QByteArray> wh = screen.split('x');
    QFile file(config.filePath("screen.json"));
    if (wh.size() != 2 || !file.open(QIODevice::WriteOnly)) return 2;
    file.write("{\"screens\": [{\"name\": \"test\", \"x\": 0, \"y\": 0, \"width\": " + wh[0] +
               ", \"height\": " + wh[1] + ", \"logicalDpiX\": 96, \"logicalDpiY\": 96}]}");
    file.close();
    platform += ":configfile=" + file.fileName().toUtf8();
  }
  qputenv("QT_QPA_PLATFORM", platform);
  // Not QStandardPaths' test mode: its folder (~/.qttest) is shared by the tests CTest runs at
  // once, and one test's saved window would be another's.
  qputenv("XDG_CONFIG_HOME", config.path().toUtf8());
  QApplication app(argc, argv);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
