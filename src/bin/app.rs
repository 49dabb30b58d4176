fn main() {
    agentrisk_viewer::start_app();
}
