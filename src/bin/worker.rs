fn main() {
    agentrisk_viewer::worker::start();
}
